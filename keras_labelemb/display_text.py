"""Text for people: tokens as printable strings and short reprs in error messages (no TensorFlow needed)."""


def short_repr(value, limit=120):
    """`repr(value)`, cut to `limit` characters with "..." (for a `Received:` part of an error)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def token_text(token):
    """A token as `str`: bytes (TextVectorization vocabularies may hold them) decoded, None as ""."""
    if token is None:
        return ""
    if isinstance(token, bytes):
        return token.decode("utf-8", errors="replace")
    return str(token)
