"""Static files as they are deployed (DEBUG off): hashed names, compressed copies, and every
ES module import rewritten to the hashed name of the module it imports.

Without the rewriting a page's entry module is hashed (`run/main.<hash>.js`) but the modules
it imports load under their plain names, cached for a while: after a deploy a browser could
run new code against old modules. Django rewrites `import ... from "./x.js"` and
`export ... from "./x.js"` when `support_js_module_import_aggregation` is on.
"""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class ModuleManifestStorage(CompressedManifestStaticFilesStorage):
    support_js_module_import_aggregation = True
