print("tnotes")
