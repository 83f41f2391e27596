"""A mock exchange-rate service: GET /rate/<base>/<quote> -> {"rate": <number>}."""

import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RATES = {("USD", "EUR"): 0.5, ("USD", "GBP"): 0.25}


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        parts = self.path.strip("/").split("/")
        if len(parts) == 3 and parts[0] == "rate" and (parts[1], parts[2]) in RATES:
            body = json.dumps({"rate": RATES[(parts[1], parts[2])]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
        else:
            body = json.dumps({"error": f"no rate for {self.path}"}).encode()
            self.send_response(404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, fmt, *args):
        pass


if __name__ == "__main__":
    ThreadingHTTPServer(("0.0.0.0", 8080), Handler).serve_forever()
