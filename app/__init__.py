"""Adapters over core: the Qt app, the socket server, the CLI, the MCP server and hooks."""
