"""The site around the features: the home page, the browser pages, /healthz, the favicon and
the sign-in lockout."""
