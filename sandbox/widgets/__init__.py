"""ipywidgets panels built on the views: the dashboard and the step-through helper."""
