"""The notes client and its HTTP transport."""

import json
import urllib.error
import urllib.parse
import urllib.request


class ApiError(Exception):
    """The API answered with an error; ``code`` is the guidelines' error code."""

    def __init__(self, status, code, message):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code


def http_transport(base_url, timeout=10.0):
    """A transport sending JSON requests to ``base_url`` over HTTP."""

    def send(method, path, query=None, body=None):
        url = base_url.rstrip("/") + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, json.load(response)
        except urllib.error.HTTPError as err:
            return err.code, json.load(err)

    return send


class NotesClient:
    """Typed access to the notes API through a transport."""

    def __init__(self, transport):
        self.transport = transport

    def _call(self, method, path, query=None, body=None):
        status, answer = self.transport(method, path, query, body)
        if status >= 400:
            err = answer.get("error", {})
            raise ApiError(status, err.get("code", "unknown"), err.get("message", ""))
        return answer

    def get_note(self, note_id):
        return self._call("GET", f"/notes/{note_id}")

    def create_note(self, text):
        return self._call("POST", "/notes", body={"text": text})

    def list_notes(self):
        """Every note, in id order."""
        return self._call("GET", "/notes")["items"]
