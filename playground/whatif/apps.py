from django.apps import AppConfig


class WhatifConfig(AppConfig):
    name = "playground.whatif"
    label = "whatif"
    verbose_name = "What-if"
    default_auto_field = "django.db.models.BigAutoField"
