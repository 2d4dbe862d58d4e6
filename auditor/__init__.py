"""casino-auditor: audits casino table-game round logs against Peru's directives."""

__version__ = "0.1.0"
