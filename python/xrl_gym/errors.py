"""Exceptions raised by xrl_gym."""

import grpc


class XrlEnvError(RuntimeError):
    """Base class of xrl_gym's errors: the server refused or failed a call."""


class InvalidActionError(XrlEnvError, ValueError):
    """The action is out of range or masked out."""


class NeedsResetError(XrlEnvError):
    """step() before reset() or after the episode ended."""


class UnknownEnvError(XrlEnvError, LookupError):
    """The server does not hold the environment (closed, or a restarted server)."""


class ServerUnavailableError(XrlEnvError, ConnectionError):
    """The server cannot be reached: it died, shut down or never started."""


class ObservationOverflowError(XrlEnvError, ValueError):
    """A graph has more nodes or edges than the padded observation holds."""


_BY_CODE = {
    grpc.StatusCode.INVALID_ARGUMENT: XrlEnvError,
    grpc.StatusCode.NOT_FOUND: UnknownEnvError,
    grpc.StatusCode.FAILED_PRECONDITION: NeedsResetError,
    grpc.StatusCode.UNAVAILABLE: ServerUnavailableError,
    grpc.StatusCode.DEADLINE_EXCEEDED: ServerUnavailableError,
    grpc.StatusCode.CANCELLED: ServerUnavailableError,
}


def from_rpc(err, what, invalid=XrlEnvError):
    """Returns the xrl_gym exception for a failed call (a grpc.RpcError).

    what names the call for the message; invalid is the class used for
    INVALID_ARGUMENT (InvalidActionError for step).
    """
    code = err.code() if hasattr(err, "code") else None
    details = err.details() if hasattr(err, "details") else str(err)
    cls = _BY_CODE.get(code, XrlEnvError)
    if code == grpc.StatusCode.INVALID_ARGUMENT:
        cls = invalid
    name = code.name if code is not None else "UNKNOWN"
    return cls(f"{what}: {details} ({name})")
