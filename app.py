"""A checkout's entry script (``streamlit run app.py``). The app is ``posenc_lab.app``, the
script the installed ``posenc-lab`` command runs; this file only calls it, so a checkout and
an install run the same code."""

from posenc_lab.app import main

main()
