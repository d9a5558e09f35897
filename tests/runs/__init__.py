"""Tests of playground/runs/."""
