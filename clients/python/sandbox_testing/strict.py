"""The client's own strictness, switched on.

gr4vy's models are pydantic models on one base (gr4vy.types.BaseModel). Required fields already
fail when missing; unknown fields are ignored by default. Forbidding them on the base, before the
generated models are imported, makes every response that carries a field the client does not
model fail to parse, and stops an OptionalNullable nested object that fails its own model from
quietly becoming UNSET (the empty Unset model would otherwise accept any object). Enumerations
accept any value as an UnrecognizedStr (or Int), for values newer than the client: an answer
holding one fails too, through the client's own ResponseValidationError.
"""

from __future__ import annotations

import pydantic


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def _open_objects_stay_open(cls, **kwargs) -> None:
    # A model with no fields is the client's "any object" (a 422 detail's ctx): keep it open.
    if not cls.model_fields and cls.__name__ != "Unset":
        cls.model_config["extra"] = "allow"
        cls.model_rebuild(force=True)


def _unrecognized(value, path="body"):
    """Where a parsed answer holds an enumeration value the client does not know."""
    from gr4vy.types.basemodel import UnrecognizedInt, UnrecognizedStr

    if isinstance(value, (UnrecognizedStr, UnrecognizedInt)):
        yield f"{path}={value!r}"
    elif isinstance(value, pydantic.BaseModel):
        for name in type(value).model_fields:
            yield from _unrecognized(getattr(value, name), f"{path}.{name}")
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _unrecognized(item, f"{path}.{i}")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _unrecognized(item, f"{path}.{key}")


def _refusing_unrecognized(unmarshal):
    def checked(typ, http_res, body=None):
        result = unmarshal(typ, http_res, body)
        found = list(_unrecognized(result))
        if found:
            from gr4vy import errors

            raise errors.ResponseValidationError("Response validation failed", http_res, ValueError(f"values the client does not know: {', '.join(found)}"), body or http_res.text)
        return result

    return checked


def switch_on() -> None:
    """Forbid unknown fields on every gr4vy model; call before gr4vy.models is imported."""
    from gr4vy.types import basemodel

    basemodel.BaseModel.model_config["extra"] = "forbid"
    basemodel.BaseModel.__pydantic_init_subclass__ = classmethod(_open_objects_stay_open)
    # The SDK's operation modules import this function when first used, which is after this.
    from gr4vy.utils import unmarshal_json_response as module

    module.unmarshal_json_response = _refusing_unrecognized(module.unmarshal_json_response)
    # The few models gr4vy's own import created already (Unset, the security and globals models).
    for cls in list(_subclasses(basemodel.BaseModel)):
        if cls.model_config.get("extra") != "forbid":
            cls.model_config["extra"] = "forbid"
            cls.model_rebuild(force=True)


def is_on() -> bool:
    from gr4vy import models

    try:
        models.PermissionSet.model_validate({"allow": [], "unknown": 1})
    except pydantic.ValidationError:
        return True
    return False
