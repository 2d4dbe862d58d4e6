"""Reading round logs: the documented format and the ingest that types and validates it."""
