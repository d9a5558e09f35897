"""Workshop mode: a trainer, a room of attendees with private sandboxes, a
presenter's run the room follows, and predict-then-reveal questions on its cycles."""
