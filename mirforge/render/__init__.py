"""Views of scenes: the scene is the model, every image is a view of it."""
