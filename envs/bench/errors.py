"""The error of an optional section (``--peers``, ``--vector``, ``--training``)
whose requirements are missing; its message says what to install."""


class Unavailable(RuntimeError):
    pass
