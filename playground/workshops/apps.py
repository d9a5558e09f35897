from django.apps import AppConfig


class WorkshopsConfig(AppConfig):
    name = "playground.workshops"
    label = "workshops"
    verbose_name = "Workshops"
    default_auto_field = "django.db.models.BigAutoField"
