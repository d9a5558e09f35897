"""The site around the features: the home page, /healthz, the favicon and the sign-in
lockout."""
