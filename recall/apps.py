from django.apps import AppConfig


class RecallConfig(AppConfig):
    name = "recall"
    verbose_name = "Recall"
