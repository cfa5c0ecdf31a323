"""URL wiring: each app's API under its contract paths, health, the schema and the admin."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from core.health import HealthApi
from core.metrics import metrics_view

handler400 = "core.exceptions.bad_request"
handler403 = "core.exceptions.forbidden"
handler404 = "core.exceptions.not_found"
handler500 = "core.exceptions.server_error"

urlpatterns = [
    path("health", HealthApi.as_view(), name="health"),
    # Outside the API's key auth: protected by METRICS_TOKEN / METRICS_ALLOWED_IPS instead.
    path("metrics", metrics_view, name="metrics"),
    # In any order: a memory id (memories.converters) matches none of the other apps' paths.
    path("memories/", include("memories.urls")),
    path("memories/", include("extraction.urls")),
    path("memories/", include("recall.urls")),
    # Last: any other segment under /memories/ is a malformed memory id (400, not 404).
    path("memories/", include("memories.urls_fallback")),
    path("", include("memories.urls_erasure")),
    path("tools", include("agents.urls")),
    path("mcp", include("agents.mcp.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("admin/", admin.site.urls),
]
