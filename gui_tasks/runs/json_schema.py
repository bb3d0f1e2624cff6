"""A small JSON Schema checker for the keywords our shipped schemas use (no extra dependency).

Supported: type, const, enum, required, properties, additionalProperties (bool or schema),
minProperties, items, minItems, minLength, pattern, minimum. Anything else in a schema is an
error here, so a schema cannot silently use a keyword this checker ignores.
"""

from __future__ import annotations

import re
from typing import Any

SUPPORTED = {"$schema", "$id", "title", "description", "type", "const", "enum", "required", "properties",
             "additionalProperties", "minProperties", "items", "minItems", "minLength", "pattern", "minimum"}
_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def _is(value: Any, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _TYPES[name])


def errors(value: Any, schema: dict[str, Any], where: str = "$") -> list[str]:
    """Every violation of ``schema`` by ``value``, each naming its JSON path."""
    unknown = set(schema) - SUPPORTED
    if unknown:
        raise ValueError(f"schema at {where} uses unsupported keyword(s) {sorted(unknown)}")
    out: list[str] = []
    types = schema.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else list(types)
        if not any(_is(value, t) for t in names):
            return [f"{where}: expected {' or '.join(names)}, got {type(value).__name__}"]
    if "const" in schema and value != schema["const"]:
        out.append(f"{where}: must be {schema['const']!r}, got {value!r}")
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{where}: must be one of {schema['enum']}, got {value!r}")
    if isinstance(value, dict):
        out += [f"{where}: lacks {k!r}" for k in schema.get("required", ()) if k not in value]
        if len(value) < schema.get("minProperties", 0):
            out.append(f"{where}: needs at least {schema['minProperties']} entries")
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                out += errors(item, props[key], f"{where}.{key}")
            elif extra is False:
                out.append(f"{where}: unexpected field {key!r}")
            elif isinstance(extra, dict):
                out += errors(item, extra, f"{where}.{key}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            out.append(f"{where}: needs at least {schema['minItems']} items")
        if "items" in schema:
            for i, item in enumerate(value):
                out += errors(item, schema["items"], f"{where}[{i}]")
                if len(out) > 20:
                    break
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            out.append(f"{where}: shorter than {schema['minLength']}")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            out.append(f"{where}: does not match {schema['pattern']}")
    if _is(value, "number") and "minimum" in schema and value < schema["minimum"]:
        out.append(f"{where}: below the minimum {schema['minimum']}")
    return out
