"""Request header rewriting for the gateway."""

from .config import GatewayConfig
from .headers import HeaderTooLarge, upstream_headers

__all__ = ["GatewayConfig", "HeaderTooLarge", "upstream_headers"]
