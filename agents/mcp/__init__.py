"""The memory tools as an MCP server (the official `mcp` SDK), over stdio and streamable HTTP.

`server.memory_server` is the one definition, built from `agents.tools.TOOLS`; the
`mcp_server` command serves it over stdio and `http.McpApi` at `/mcp`.
"""
