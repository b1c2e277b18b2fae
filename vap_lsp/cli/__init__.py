"""Command-line adapter: argument parsing and output formats only; analysis lives below."""
