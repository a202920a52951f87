"""Which provider errors are worth retrying, and how long to wait before the next try.

litellm's own retries are switched off (num_retries=0) so that every attempt
is visible in the call records and the backoff is configurable; this module
is the policy the client applies instead.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Mapping

import httpx

TRANSIENT_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
PERMANENT_STATUS = frozenset({400, 401, 402, 403, 404, 413, 422})
MAX_RETRY_AFTER_S = 60.0
_TRANSIENT_TYPES: tuple[type[BaseException], ...] = (
    asyncio.TimeoutError,
    TimeoutError,
    ConnectionError,
    httpx.TimeoutException,
    httpx.NetworkError,
)


def status_of(error: BaseException) -> int | None:
    """The HTTP-like status an exception carries, if any."""
    status = getattr(error, "status_code", None)
    if isinstance(status, int):
        return status
    response = getattr(error, "response", None)
    status = getattr(response, "status_code", None)
    return status if isinstance(status, int) else None


def _litellm_transient_types() -> tuple[type[BaseException], ...]:
    import litellm

    return (litellm.Timeout, litellm.APIConnectionError)


# A request without credentials fails the same way every time, whatever status the
# provider wrapper gives it (litellm reports the OpenAI client's "Missing credentials" as
# an InternalServerError, which used to be retried for 13 seconds).
_AUTH_MESSAGES = ("missing credentials", "api_key client option must be set", "api key not")


def is_authentication(error: BaseException) -> bool:
    import litellm

    if isinstance(error, litellm.AuthenticationError) or status_of(error) == 401:
        return True
    text = str(error).lower()
    return any(needle in text for needle in _AUTH_MESSAGES)


# What a server's refusal of a request's response_format names (llama-cpp-python: "('body',
# 'response_format', 'type') ... Input should be 'text' or 'json_object'"; TGI: "unknown
# variant `json_schema`"; OpenAI: "'response_format' of type 'json_schema' is not supported").
_FORMAT_WORDS = ("response_format", "json_schema", "json_object")


def format_refused(error: BaseException) -> bool:
    """A request refused for its `response_format`: a 400 or 422, or a server error (some
    servers answer a request they cannot parse with a 500), whose text names the format.
    Sending it again gets the same answer; a structured call steps down instead
    (sane.llm._formats)."""
    status = status_of(error)
    if status is None or not (status in (400, 422) or status >= 500):
        return False
    text = str(error).lower()
    return any(word in text for word in _FORMAT_WORDS)


def is_timeout(error: BaseException) -> bool:
    """A sent request that got no answer in its time (the client narrows the server's limit)."""
    import litellm

    return isinstance(
        error, (asyncio.TimeoutError | TimeoutError | httpx.TimeoutException, litellm.Timeout)
    )


def is_transient(error: BaseException) -> bool:
    """Rate limits, server errors, timeouts and connection errors are worth another try;
    an authentication failure never is, nor a request refused for its format."""
    if is_authentication(error) or format_refused(error):
        return False
    if isinstance(error, _TRANSIENT_TYPES + _litellm_transient_types()):
        return True
    status = status_of(error)
    if status is None:
        return False
    if status in PERMANENT_STATUS:
        return False
    return status in TRANSIENT_STATUS or status >= 500


def _headers_of(error: BaseException) -> Mapping[str, str] | None:
    headers = getattr(error, "litellm_response_headers", None)
    if headers:
        return headers
    response = getattr(error, "response", None)
    return getattr(response, "headers", None)


def retry_after_s(error: BaseException) -> float | None:
    """Seconds the server asked us to wait (Retry-After: seconds or an HTTP date)."""
    headers = _headers_of(error)
    if not headers:
        return None
    value = headers.get("retry-after") or headers.get("Retry-After")
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        parsed = email.utils.parsedate_tz(value)
        if parsed is None:
            return None
        seconds = email.utils.mktime_tz(parsed) - time.time()
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_S)


def backoff_delay(error: BaseException, attempt: int, base_s: float) -> float:
    """Retry-After when the server gave one, else base * 2**attempt (attempt counts from 0)
    times a random factor in [0.5, 1] (jitter), so that many concurrent calls failing
    together do not all come back at the same instant."""
    asked = retry_after_s(error)
    if asked is not None:
        return asked
    return base_s * (2**attempt) * random.uniform(0.5, 1.0)
