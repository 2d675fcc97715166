// The few GTK 4 calls the example makes, as functions Swift can call: GTK's casts
// (GTK_WINDOW, G_APPLICATION, …) and g_signal_connect are macros, which Swift does not import.
#include <gtk/gtk.h>

typedef void (*cgtk_widget_callback)(GtkWidget *widget, void *context);
typedef void (*cgtk_app_callback)(GtkApplication *app, void *context);

static inline GtkApplication *cgtk_application_new(const char *identifier) {
    return gtk_application_new(identifier, G_APPLICATION_NON_UNIQUE);
}

static inline void cgtk_on_activate(GtkApplication *app, cgtk_app_callback callback, void *context) {
    g_signal_connect_data(app, "activate", G_CALLBACK(callback), context, NULL, 0);
}

static inline void cgtk_on_clicked(GtkWidget *button, cgtk_widget_callback callback, void *context) {
    g_signal_connect_data(button, "clicked", G_CALLBACK(callback), context, NULL, 0);
}

static inline int cgtk_run(GtkApplication *app, const char *program) {
    char *argv[] = {(char *)program, NULL};
    return g_application_run(G_APPLICATION(app), 1, argv);
}

static inline GtkWidget *cgtk_window_new(GtkApplication *app, const char *title, int width, int height) {
    GtkWidget *window = gtk_application_window_new(app);
    gtk_window_set_title(GTK_WINDOW(window), title);
    gtk_window_set_default_size(GTK_WINDOW(window), width, height);
    return window;
}

static inline void cgtk_window_set_title(GtkWidget *window, const char *title) {
    gtk_window_set_title(GTK_WINDOW(window), title);
}

static inline void cgtk_window_set_child(GtkWidget *window, GtkWidget *child) {
    gtk_window_set_child(GTK_WINDOW(window), child);
}

static inline void cgtk_window_present(GtkWidget *window) { gtk_window_present(GTK_WINDOW(window)); }

static inline GtkWidget *cgtk_vbox_new(int spacing) { return gtk_box_new(GTK_ORIENTATION_VERTICAL, spacing); }
static inline GtkWidget *cgtk_hbox_new(int spacing) { return gtk_box_new(GTK_ORIENTATION_HORIZONTAL, spacing); }
static inline void cgtk_box_append(GtkWidget *box, GtkWidget *child) { gtk_box_append(GTK_BOX(box), child); }

static inline void cgtk_set_margins(GtkWidget *widget, int margin) {
    gtk_widget_set_margin_top(widget, margin);
    gtk_widget_set_margin_bottom(widget, margin);
    gtk_widget_set_margin_start(widget, margin);
    gtk_widget_set_margin_end(widget, margin);
}

static inline void cgtk_label_set_text(GtkWidget *label, const char *text) { gtk_label_set_text(GTK_LABEL(label), text); }

static inline void cgtk_label_set_markup(GtkWidget *label, const char *markup) {
    gtk_label_set_markup(GTK_LABEL(label), markup);
}

static inline void cgtk_set_sensitive(GtkWidget *widget, int sensitive) { gtk_widget_set_sensitive(widget, sensitive); }

static inline void cgtk_set_size(GtkWidget *widget, int width, int height) {
    gtk_widget_set_size_request(widget, width, height);
}

/// Runs `work(context)` once on the GTK main loop (the only thread that may touch widgets).
static inline void cgtk_on_main_loop(gboolean (*work)(void *context), void *context) {
    g_idle_add((GSourceFunc)work, context);
}

static inline char *cgtk_markup_escape(const char *text) { return g_markup_escape_text(text, -1); }
static inline void cgtk_free(void *pointer) { g_free(pointer); }
