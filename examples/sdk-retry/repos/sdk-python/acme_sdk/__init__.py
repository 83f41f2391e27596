"""Python client for the Acme API."""
