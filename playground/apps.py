from django.apps import AppConfig


class PlaygroundConfig(AppConfig):
    name = "playground"
    verbose_name = "Scheduling playground"
    default_auto_field = "django.db.models.BigAutoField"
