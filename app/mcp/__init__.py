"""The MCP server agents call at implementation forks (no Qt here)."""
