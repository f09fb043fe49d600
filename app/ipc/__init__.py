"""The tray app's local socket server: the one door through which agents reach the human."""
