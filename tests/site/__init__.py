"""Tests of playground/site/."""
