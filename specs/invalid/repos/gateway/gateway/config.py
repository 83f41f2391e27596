"""Gateway configuration."""

from dataclasses import dataclass

from proxy.cookies import DEFAULT_MAX_HEADER_BYTES

KNOWN_KEYS = ("upstream", "timeout")


@dataclass(frozen=True)
class GatewayConfig:
    """Settings of one gateway instance."""

    upstream: str
    timeout: float = 30.0
    # Largest header value the upstream accepts, in bytes.
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES

    @classmethod
    def from_mapping(cls, data):
        """Build a config from a parsed config file; unknown keys are errors."""
        unknown = sorted(set(data) - set(KNOWN_KEYS))
        if unknown:
            raise ValueError(f"unknown config keys: {', '.join(unknown)}")
        if "upstream" not in data:
            raise ValueError("config key 'upstream' is required")
        return cls(upstream=str(data["upstream"]), timeout=float(data.get("timeout", 30.0)))
