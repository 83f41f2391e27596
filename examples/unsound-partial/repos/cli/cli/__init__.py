"""du-lite: list large files."""
