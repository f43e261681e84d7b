"""Streamlit glue for posenc-lab: URL-synced controls, cached calls into posenc, page furniture."""
