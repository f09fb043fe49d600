"""Qt widgets of the tray app; they show data and emit signals, and never touch the journal."""
