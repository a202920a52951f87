"""The oracle panel: k votes per decision by one or more models (`oracle`), the questions
and how an answer becomes a vote (`ballots`), sequential stopping once a majority is
certain (`sequential`), and the planted controls with known answers that measure the panel
in every suite (`controls`)."""
