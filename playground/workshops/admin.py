"""The workshops in Django's admin: workshops with their lessons, attendees and questions, for
a trainer's or an operator's look; predictions are what attendees said, so read-only."""

from django.contrib import admin

from playground.workshops.models import (
    Attendee,
    PracticePrediction,
    Prediction,
    Question,
    Workshop,
    WorkshopLesson,
)


class LessonInline(admin.TabularInline):
    model = WorkshopLesson
    extra = 0
    raw_id_fields = ["cluster"]


@admin.register(Workshop)
class WorkshopAdmin(admin.ModelAdmin):
    list_display = ["id", "code", "title", "trainer", "state", "expires", "created"]
    list_filter = ["state"]
    search_fields = ["code", "title"]
    raw_id_fields = ["trainer", "current_lesson"]
    inlines = [LessonInline]


@admin.register(Attendee)
class AttendeeAdmin(admin.ModelAdmin):
    list_display = ["id", "display_name", "workshop", "joined"]
    search_fields = ["display_name", "workshop__code"]
    raw_id_fields = ["workshop", "user"]


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    list_display = ["id", "workshop", "cycle_index", "point", "state", "created"]
    list_filter = ["state", "point"]
    raw_id_fields = ["workshop", "run"]


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Prediction)
class PredictionAdmin(ReadOnlyAdmin):
    list_display = ["id", "question", "attendee", "correct", "submitted"]
    list_filter = ["correct"]


@admin.register(PracticePrediction)
class PracticePredictionAdmin(ReadOnlyAdmin):
    list_display = ["id", "user", "lesson", "cycle_index", "point"]
