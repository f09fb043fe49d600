"""Decision Journal's domain core: pure Python, no Qt, shared by every adapter."""

__version__ = "0.1.0"
