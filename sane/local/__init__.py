"""The embedded offline models: verified model files, llama.cpp chat and likelihoods, embeddings.

Everything here runs without an API key or a model hub (docs/embedded-models.md):
`assets` finds and verifies the model files that PyPI packages carry,
`llama` chats with the GGUF instruction models, `likelihood` gives token
log-probabilities on a base LM, `embeddings` encodes with sentence-transformers.
Heavy libraries are imported only when a model is first used.
"""
