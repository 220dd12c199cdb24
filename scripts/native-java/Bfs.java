// Native reference explorer for RERS Java programs: breadth-first search
// over the field valuations of the original class, run on the JVM via
// reflection (calculateOutput on a restored copy of each state). Errors.java
// beside it makes __VERIFIER_error throw. Used to cross-check rigor's Java
// front end: states, transitions and reachable labels must agree.
// Usage: see check.sh.
import java.lang.reflect.*;
import java.util.*;
import java.io.*;
public class Bfs {
    static List<Field> fields = new ArrayList<>();
    static Object[] snap(Object o) throws Exception {
        Object[] s = new Object[fields.size()];
        for (int i = 0; i < s.length; i++) { Object v = fields.get(i).get(o); s[i] = (v instanceof int[]) ? ((int[]) v).clone() : v; }
        return s;
    }
    static void restore(Object o, Object[] s) throws Exception {
        for (int i = 0; i < s.length; i++) { Object v = s[i]; fields.get(i).set(o, (v instanceof int[]) ? ((int[]) v).clone() : v); }
    }
    static String key(Object[] s) { StringBuilder b = new StringBuilder(); for (Object v : s) { b.append(v instanceof int[] ? Arrays.toString((int[]) v) : String.valueOf(v)).append('|'); } return b.toString(); }
    public static void main(String[] a) throws Exception {
        Class<?> c = Class.forName(a[0]);
        int max = Integer.parseInt(a[1]);
        Constructor<?> k = c.getDeclaredConstructor(); k.setAccessible(true);
        Object o = k.newInstance();
        for (Field f : c.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) || f.getName().equals("inputs") || f.getName().equals("cf")) continue;
            Class<?> t = f.getType();
            if (t == int.class || t == boolean.class || t == String.class || t == int[].class) { f.setAccessible(true); fields.add(f); }
        }
        Field inf = c.getDeclaredField("inputs"); inf.setAccessible(true);
        String[] inputs = (String[]) inf.get(o);
        Method step = c.getDeclaredMethod("calculateOutput", String.class); step.setAccessible(true);
        PrintStream realOut = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf));
        Map<String, Integer> seen = new HashMap<>();
        List<Object[]> queue = new ArrayList<>();
        Object[] init = snap(o);
        seen.put(key(init), 0); queue.add(init);
        TreeSet<Integer> errs = new TreeSet<>();
        long trans = 0; int head = 0; long other = 0;
        while (head < queue.size() && queue.size() < max) {
            Object[] s = queue.get(head++);
            for (String in : inputs) {
                restore(o, s); trans++;
                try { step.invoke(o, in); }
                catch (InvocationTargetException e) {
                    Throwable t = e.getCause();
                    if (t instanceof Errors.Hit) { errs.add(((Errors.Hit) t).n); continue; }
                    if (t instanceof IllegalArgumentException) { /* invalid: state unchanged in 2014+ style */ }
                    else { other++; continue; }
                }
                Object[] n = snap(o);
                String kk = key(n);
                if (!seen.containsKey(kk)) { seen.put(kk, queue.size()); queue.add(n); }
            }
        }
        System.setOut(realOut);
        System.out.println(a[0] + " states " + queue.size() + " expanded " + head + " complete " + (head == queue.size()) + " transitions " + trans + " other-exceptions " + other + " reachable " + errs);
    }
}
