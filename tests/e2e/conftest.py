"""End-to-end tests share the real-weights fixture of the embedded model's tests."""

from tests.llm.local.conftest import E2E_MODEL, real_model_cache

__all__ = ["E2E_MODEL", "real_model_cache"]
