"""Helpers of the Python suite: strict models, the sandbox process, the control API."""
