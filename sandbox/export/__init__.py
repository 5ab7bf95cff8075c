"""Exports of the trace log: Chrome Trace Event JSON for Perfetto and chrome://tracing."""
