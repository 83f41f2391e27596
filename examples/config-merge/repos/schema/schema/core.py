"""Fields, sections, validation and merging of configuration tables."""

REQUIRED = object()
"""Default of a field that must be given."""


class Field:
    """A typed leaf value, with a default unless it is required."""

    def __init__(self, type_, default=REQUIRED, doc=""):
        self.type = type_
        self.default = default
        self.doc = doc

    @property
    def required(self):
        return self.default is REQUIRED

    def check(self, value, path):
        """Raise ``ValueError`` unless ``value`` has this field's type."""
        # bool is a subclass of int, but `port = true` is a mistake.
        if not isinstance(value, self.type) or (self.type is int and isinstance(value, bool)):
            raise ValueError(f"{path}: expected {self.type.__name__}, got {type(value).__name__}")


class Section:
    """A table of named fields and nested sections."""

    def __init__(self, fields):
        self.fields = dict(fields)

    def validate(self, data, path=""):
        """Return ``data`` checked and completed with defaults; raise ``ValueError`` on errors."""
        if not isinstance(data, dict):
            raise ValueError(f"{path or 'config'}: expected a table, got {type(data).__name__}")
        for name in data:
            if name not in self.fields:
                raise ValueError(f"{_join(path, name)}: unknown key")
        out = {}
        for name, spec in self.fields.items():
            key = _join(path, name)
            if isinstance(spec, Section):
                out[name] = spec.validate(data.get(name, {}), key)
            elif name in data:
                spec.check(data[name], key)
                out[name] = data[name]
            elif spec.required:
                raise ValueError(f"{key}: required")
            else:
                out[name] = spec.default
        return out

    def merge(self, base, override):
        """Combine two configuration layers: the keys of ``override`` win."""
        merged = dict(base)
        merged.update(override)
        return merged


def _join(path, name):
    return f"{path}.{name}" if path else name
