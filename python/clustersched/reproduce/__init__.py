"""One module per paper: its campaign, its tables and its figures."""
