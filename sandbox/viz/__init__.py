"""Views of the trace log: data extraction, matplotlib drawings and text summaries.

Every function here takes the log (or an Index built from it) and, where it matters, a
time t in nanoseconds; none of them looks at live runtime objects.
"""
