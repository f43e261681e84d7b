"""The lessons, one folder each (``lesson.py``, ``page.py`` and, as a lesson needs them,
``exercises.py``, ``compute.py``, ``figures.py``, ``measure.py``). Their order is
``posenc_lab.course``; nothing is imported here, so a lesson's ``measure`` imports with
NumPy alone."""
