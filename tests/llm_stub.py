"""A real HTTP server speaking the OpenAI chat-completions protocol, for tests (WIP)."""
