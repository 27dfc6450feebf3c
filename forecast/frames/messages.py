"""An error in one line: the first line of an exception's message, for logs and replies."""

from __future__ import annotations


def first_line(err: BaseException) -> str:
    r"""Return the first line of an exception's message (a KeyError's without quotes).

    Parameters
    ----------
    err : BaseException
        Any exception.

    Returns
    -------
    str
        The stripped message's first line; the exception's class name if the message is
        empty.

    Examples
    --------
    >>> first_line(ValueError("bad value\n  details"))
    'bad value'
    >>> first_line(KeyError("load"))
    'load'
    >>> first_line(RuntimeError())
    'RuntimeError'
    """
    # str() of a KeyError is its key's repr, quoted: show the key itself
    text = err.args[0] if isinstance(err, KeyError) and err.args else err
    text = str(text).strip()
    return text.splitlines()[0] if text else type(err).__name__
