"""The package version, in one place (read by the package metadata and saved folders)."""

__version__ = "0.2.0.dev0"
