from django.apps import AppConfig


class WorkshopsConfig(AppConfig):
    name = "playground.workshops"
    label = "workshops"
    verbose_name = "Workshops"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Hidden means hidden: what the room may not see while a question is open is "not
        # found" through every page, API and socket of runs and clusters.
        from playground import withholding
        from playground.workshops.selectors import withheld_clusters, withheld_runs

        withholding.register("run", withheld_runs)
        withholding.register("cluster", withheld_clusters)
