# A side that starts one thread, which lives a fifth of a second, then
# prints its metric: for alternate -T.
import threading
import time

t = threading.Thread(target=time.sleep, args=(0.2,))
t.start()
t.join()
print('{"t_ns":1}')
