"""The notes service API."""
