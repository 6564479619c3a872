"""The bases of the instance interface's views (/instances/), here and in the integrations that mount
under it: the view authorised by the instance key in its path, and the strict boolean its bodies take."""

from __future__ import annotations

from rest_framework.permissions import AllowAny
from rest_framework.views import APIView

from webhooks.instance.guard import InstanceKeyGuessThrottle


class InstanceAPIView(APIView):
    """No API key: the instance key in the path identifies and authorises; failed lookups are
    throttled per client address."""

    # The throttle lives in webhooks.instance.guard (kept out of the docstring, which is the public
    # description of every instance operation).

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [InstanceKeyGuessThrottle]
