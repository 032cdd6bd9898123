"""One readable JSON file per vector: two-space indent, keys by UTF-8 bytes, strings escaped canonically."""
import os

from tresorref import canonical_json as cj


def pretty(value, indent=""):
    inner = indent + "  "
    if isinstance(value, (list, tuple)) and value:
        return "[\n" + ",\n".join(inner + pretty(v, inner) for v in value) + "\n" + indent + "]"
    if isinstance(value, dict) and value:
        keys = sorted(value, key=cj.utf8_key)
        return ("{\n" + ",\n".join(inner + cj.dumps_text(k) + ": " + pretty(value[k], inner) for k in keys)
                + "\n" + indent + "}")
    return cj.dumps_text(value)


class VectorSet:
    """Vectors by file name; `write` replaces the folder's *.json files with them."""

    def __init__(self):
        self.vectors = {}

    def add(self, name, vector):
        assert name not in self.vectors, "duplicate vector name " + name
        self.vectors[name] = vector

    def success(self, name, test, description, inputs, expected):
        self.add(name, {"description": description, "test": test, "inputs": inputs, "expected": expected})

    def failure(self, name, test, description, inputs, error):
        self.add(name, {"description": description, "test": test, "inputs": inputs, "error": error})

    def write(self, directory):
        os.makedirs(directory, exist_ok=True)
        for old in os.listdir(directory):
            if old.endswith(".json") and old[:-5] not in self.vectors:
                os.remove(os.path.join(directory, old))
        for name, vector in sorted(self.vectors.items()):
            with open(os.path.join(directory, name + ".json"), "wb") as f:
                f.write((pretty(vector) + "\n").encode("utf-8"))
