"""Client hooks: block edits while a decision is pending; answer AskUserQuestion in the app."""
