"""The served name of the embedded SmolLM2 in the tests' llama.cpp server (conftest's ``llama_server``)."""

SERVED_NAME = "smollm2"
EMBEDDED_MODEL = "embedded:smollm2-135m-instruct"
