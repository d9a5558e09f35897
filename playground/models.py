"""The playground app's models live in their features' folders; Django loads an app's
models from this one module, so it imports them, in the order of the migrations' state."""

from playground.clusters import models as clusters  # noqa: F401
from playground.profiles import models as profiles  # noqa: F401
from playground.runs import models as runs  # noqa: F401
from playground.timelines import models as timelines  # noqa: F401
